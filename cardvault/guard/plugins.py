"""The detect-secrets adapter: which of its plugins and regexes the guard runs, loaded lazily.

The plugins are used in-process, line by line, without detect-secrets' global settings.
Importing detect-secrets costs 110-150 ms (mostly `requests`), so `load_kit` runs only once the
cheap gate (`gate.might_hold_secret`) has let text through, and its result is kept per process.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any


@dataclass(frozen=True)
class Kit:
    """The detect-secrets plugins and regexes in use, built once per process on first need."""

    patterns: tuple[tuple[Any, str], ...]  # (plugin, kind), most specific first
    private_key: Any
    keyword_regexes: dict[re.Pattern[str], int]  # regex -> group holding the value
    base64: Any
    hex: Any


_PLUGINS = (  # (module in detect_secrets.plugins, class, kind), most specific first
    ("aws", "AWSKeyDetector", "AWS access key"),
    ("github_token", "GitHubTokenDetector", "GitHub token"),
    ("gitlab_token", "GitLabTokenDetector", "GitLab token"),
    ("slack", "SlackDetector", "Slack token"),
    ("openai", "OpenAIDetector", "OpenAI API key"),
    ("jwt", "JwtTokenDetector", "JWT"),
    ("stripe", "StripeDetector", "Stripe key"),
    ("sendgrid", "SendGridDetector", "SendGrid API key"),
    ("twilio", "TwilioKeyDetector", "Twilio key"),
    ("pypi_token", "PypiTokenDetector", "PyPI token"),
    ("npm", "NpmDetector", "npm token"),
    ("discord", "DiscordBotTokenDetector", "Discord bot token"),
    ("telegram_token", "TelegramBotTokenDetector", "Telegram bot token"),
    ("mailchimp", "MailchimpDetector", "Mailchimp key"),
    ("square_oauth", "SquareOAuthDetector", "Square OAuth secret"),
    ("azure_storage_key", "AzureStorageKeyDetector", "Azure storage key"),
    ("artifactory", "ArtifactoryDetector", "Artifactory token"),
    ("cloudant", "CloudantDetector", "Cloudant key"),
    ("ibm_cloud_iam", "IbmCloudIamDetector", "IBM Cloud IAM key"),
    ("ibm_cos_hmac", "IbmCosHmacDetector", "IBM COS HMAC secret"),
    ("softlayer", "SoftlayerDetector", "SoftLayer key"),
    ("basic_auth", "BasicAuthDetector", "password in URL"),
)


@lru_cache(maxsize=1)
def load_kit() -> Kit:
    """The plugins, imported and instantiated on the first call; later calls return the same."""
    from importlib import import_module

    def plugin(module: str, name: str) -> Any:
        return getattr(import_module(f"detect_secrets.plugins.{module}"), name)()

    keyword = import_module("detect_secrets.plugins.keyword")
    regexes = {
        **keyword.CONFIG_DENYLIST_REGEX_TO_GROUP,  # quotes optional, as in .env and YAML
        keyword.FOLLOWED_BY_ARROW_FUNCTION_SIGN_QUOTES_REQUIRED_REGEX: 4,
        keyword.FOLLOWED_BY_COLON_EQUAL_SIGNS_REGEX: 4,
    }
    return Kit(
        patterns=tuple((plugin(module, name), kind) for module, name, kind in _PLUGINS),
        private_key=plugin("private_key", "PrivateKeyDetector"),
        keyword_regexes=regexes,
        base64=plugin("high_entropy_strings", "Base64HighEntropyString"),
        hex=plugin("high_entropy_strings", "HexHighEntropyString"),
    )
