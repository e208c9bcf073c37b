#!/usr/bin/env bash
# The main job: start Neo4j, ingest the bundled sample, summarise the graph, run the retrieval line and the
# evaluation of MemKB against No Memory + Hybrid (retrieval-only without an LLM); `run` writes the report and
# prints its path.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CB="$ROOT/colabench"
"$CB" neo4j start
"$CB" ingest sample
"$CB" graph summary
"$CB" eval retrieval --dataset bundle --path sample --recipes all --k 1,3,5,10,20 \
    --out "${COLABENCH_DATA_DIR:-$ROOT/.data}/results/retrieval_sample.json"
"$CB" run --methods MEMKB,MEMKB_RAW_TURNS,HYBRID --dataset sample
cat <<'TXT'

Explore the graph:
  ./colabench graph summary            counts per label and relationship, log head
  ./colabench events verify            walk the hash chain of the event log
  ./colabench graph rebuild --check    replay the log and compare the projection fingerprint
  ./colabench query search "can my mum still live alone?" --recipe MEMKB_RAW_TURNS --profile p-daniel
  ./colabench query read DOC_ID --start 1 --lines 40
  ./colabench eval retrieval --dataset longmemeval --path ../shared/data/longmemeval_dev/longmemeval_s_dev.json.gz
  ./colabench ingest ../shared/data/kb/documents.jsonl.gz   the full 6,256-document knowledge base
  ./colabench serve                    GraphQL API + graph browser on http://127.0.0.1:8000/browser
  ./colabench report --list            every evaluation run in the graph
  ./colabench llm settings             the LLM roles (endpoint, model; never keys)
  ./colabench neo4j stop               stop the local Neo4j
TXT
