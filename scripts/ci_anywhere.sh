#!/usr/bin/env bash
# Does `bash .ci/run` pass however it is started? Tries it once in each way, one after another
# (never in parallel: each run is a whole install and test suite), each on a fresh clone of the
# current commit, and prints one line per way: passed or failed, and how long it took.
#
#   bash scripts/ci_anywhere.sh                   # every way (an hour or more on 2 busy cores)
#   bash scripts/ci_anywhere.sh background nohup  # only these
#
# Ways: foreground, background (`bash .ci/run &` then `wait`: a script's background job starts
# with SIGINT and SIGQUIT ignored), nohup (SIGHUP ignored), zsh and sh (.ci/run's commands run
# by `zsh -c` / `sh -c`, so that shell, not bash, is the one pytest runs under: `zsh -c 'bash
# .ci/run'` would leave bash the nearest shell), empty-home (HOME an empty folder: no dotfiles,
# no git identity, no caches; the caller's GIT_*/EMAIL identity variables unset too), and
# stdin-closed (`<&-`). None has a terminal (setsid: no controlling terminal; output to a log).
# Uncommitted changes are not tried: the clone is of HEAD. zsh is installed from Debian when
# missing and possible (root, apt-get); otherwise the zsh way is reported as not tried.
set -uo pipefail
repo=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
commit=$(git -C "$repo" rev-parse HEAD)
all=(foreground background nohup zsh sh empty-home stdin-closed)
modes=("$@")
[ ${#modes[@]} -eq 0 ] && modes=("${all[@]}")
out=$(mktemp -d "${TMPDIR:-/tmp}/ci-anywhere.XXXXXX")
# The clones live under $out, where benchmarks/data_path.py finds no shared/data above them:
# point the tests that read real notes at the data beside this checkout.
for data in "${CARDVAULT_DATA:-}" "$repo/../shared/data"; do
    if [ -n "$data" ] && [ -d "$data" ]; then export CARDVAULT_DATA=$(cd "$data" && pwd); break; fi
done
chmod 755 "$out"  # an unprivileged user (.ci/unprivileged) must be able to read the clones

if [ -n "$(git -C "$repo" status --porcelain)" ]; then
    echo "note: uncommitted changes are not tried (the clones are of $commit)"
fi

have_zsh() {
    command -v zsh >/dev/null && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "zsh is missing: apt-get install -y zsh"
        apt-get install -y -q zsh >"$out/apt-zsh.log" 2>&1 ||
            { apt-get update -q >>"$out/apt-zsh.log" 2>&1 &&
                apt-get install -y -q zsh >>"$out/apt-zsh.log" 2>&1; }
    fi
    command -v zsh >/dev/null
}

ci_commands() {  # .ci/run's commands (not its `set`, `cd` or comments) joined by &&
    grep -v -e '^#' -e '^set ' -e '^cd ' -e '^$' "$1/.ci/run" | sed ':a;N;$!ba;s/\n/ \&\& /g'
}

try() {  # try MODE CLONE LOG: run .ci/run in CLONE the MODE way; its exit code
    local mode=$1 clone=$2 log=$3 home pid
    cd "$clone" || return 1
    case $mode in
        foreground) setsid -w bash .ci/run >"$log" 2>&1 ;;
        background)
            setsid -w bash .ci/run >"$log" 2>&1 &
            pid=$!
            sleep 1
            # what the job started with (SigIgn bit 1 = SIGINT, bit 2 = SIGQUIT)
            grep -h '^SigIgn' "/proc/$pid/status" >"$log.signals" 2>/dev/null
            wait "$pid"
            ;;
        nohup) setsid -w nohup bash .ci/run >"$log" 2>&1 ;;
        zsh) setsid -w zsh -c "$(ci_commands "$clone")" >"$log" 2>&1 ;;
        sh) setsid -w sh -c "$(ci_commands "$clone")" >"$log" 2>&1 ;;
        empty-home)
            home=$(mktemp -d "$out/home.XXXXXX")
            setsid -w env -u GIT_AUTHOR_NAME -u GIT_AUTHOR_EMAIL -u GIT_COMMITTER_NAME \
                -u GIT_COMMITTER_EMAIL -u EMAIL -u XDG_CONFIG_HOME -u XDG_CACHE_HOME \
                -u XDG_DATA_HOME HOME="$home" bash .ci/run >"$log" 2>&1
            ;;
        stdin-closed) setsid -w bash .ci/run >"$log" 2>&1 <&- ;;
        *)
            echo "unknown way: $mode (ways: ${all[*]})" >"$log"
            return 2
            ;;
    esac
}

printf '%s\n' "commit $commit; logs and clones in $out"
printf '%s\n' "load before: $(uptime)"
failed=0
for mode in "${modes[@]}"; do
    if [ "$mode" = zsh ] && ! have_zsh; then
        printf '%-13s not tried: zsh is not installed (apt-get install zsh)\n' "$mode"
        failed=1
        continue
    fi
    clone="$out/$mode"
    git clone -q --no-hardlinks "$repo" "$clone" && git -C "$clone" checkout -q "$commit" || {
        printf '%-13s not tried: could not clone %s\n' "$mode" "$repo"
        failed=1
        continue
    }
    log="$out/$mode.log"
    start=$(date +%s)
    (try "$mode" "$clone" "$log")
    code=$?
    took=$(($(date +%s) - start))
    summary=$(grep -E '^[0-9]+ (passed|failed)|^=+ .*(passed|failed|error)' "$log" | tail -n 2 |
        tr -d '=' | sed 's/^ *//' | paste -sd ';' -)
    if [ "$code" = 0 ]; then verdict=passed; else verdict="FAILED (exit $code)"; failed=1; fi
    printf '%-13s %-18s %3dm%02ds  %s\n' "$mode" "$verdict" $((took / 60)) $((took % 60)) \
        "$summary"
    [ -s "$log.signals" ] && printf '%-13s   job started with %s\n' "" "$(cat "$log.signals")"
done
printf '%s\n' "load after: $(uptime)"
exit $failed
