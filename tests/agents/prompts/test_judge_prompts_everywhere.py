"""The prompt registry sits below the judges (issue 23: no import circle between agents.prompts and
agents.judging): the agents room hands it the judges' templates when it is imported, so a process that imports
nothing but the prompt registry (as `llm prompts` does) still lists every judge's templates, a plug-in judge's
among them, and a prompt file may replace them."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from agents.judging.registry import judge_templates
from tests.paths import REPO

LIST_PROMPTS = (
    "import json\n"
    "from agents.prompts.registry import PromptSet, builtin_prompts\n"
    "PromptSet()  # refuses nothing: every source lists without error\n"
    "print(json.dumps(sorted(builtin_prompts())))\n"
)


def test_a_process_importing_only_the_prompt_registry_lists_every_judge_template() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLABENCH_PLUGINS": "tests.plugins.echo_judge"}
    done = subprocess.run(
        [sys.executable, "-c", LIST_PROMPTS], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    listed = set(json.loads(done.stdout.splitlines()[-1]))
    shipped = {t.name for t in judge_templates()}
    assert {"judge_accuracy", "judge_memory_integrity", "judge_abstention_user"} <= shipped
    assert shipped <= listed
    assert {"judge_echo_premise", "judge_echo_premise_user"} <= listed  # the plug-in judge's, loaded on listing
