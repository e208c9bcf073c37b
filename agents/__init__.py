"""agents room: the writing and running side (memory systems, methods, runs, judging, synthesis, reports).

Importing it finds the memory systems' folders (agents/memory/<system>/declare.py), which register their recipes
with query.recipes, their methods with agents.methods and themselves with agents.memory.registry; so any
process that uses the agents room knows every shipped system by name, without importing an SDK. It also hands the
prompt registry (agents.prompts.registry, below the judges) the judges' templates, so every `PromptSet` built in
any process (CLI, API, tests, Ray workers) lists them and lets a prompt file replace them."""

from agents.memory.registry import discover_system_folders
from agents.prompts.registry import add_prompt_source
from agents.prompts.template import PromptTemplate


def judge_prompts() -> list[PromptTemplate]:
    """Every registered judge's templates (plug-in judges too); the judge registry is imported on the first listing
    of the prompts, not with the room."""
    from agents.judging.registry import judge_templates

    return judge_templates()


discover_system_folders()
add_prompt_source(judge_prompts)
