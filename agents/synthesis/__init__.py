"""The ColaBench synthesis pipeline (paper Sec. 3, App. A.3-A.4): plan-create-review roles that grow the
evidence graph into a new benchmark.

Stages, each a module: `stage_docs` (0: document links), `stage_profiles` (I: Director + reviewer),
`stage_dialogue` (II: user Simulator + Assistant with the real kb_search / read), `stage_items` (III: Builder,
question writer, blind solver, comparator, final verifier) and `stage_augment`. Every role sees a typed view
built by one function per role (`views_*`), never the graph; every outcome is an event with actor
`synthesis:<role>`. `export` writes the result as a ColaBench bundle; `summary` reports acceptance and cost.
"""

# The stage registry hands graph/vocab.py its discoverer, so the stage names events accept are known to any
# process that imports a synthesis module.
import agents.synthesis.registry  # noqa: F401
