// $rows: {seq, run_id, method, dataset, batch_id, item_ids, config_json, models_json, prompt_hashes_json,
//         seeds_json, versions_json, dataset_fingerprint, dataset_head_seq}
// Every planned item must exist in the graph.
UNWIND $rows AS row
CALL (row) {
  UNWIND row.item_ids AS iid
  MATCH (i:Item {id: iid})
  RETURN count(i) AS n_items
}
WITH row, n_items WHERE n_items = size(row.item_ids)
CREATE (r:Run {id: row.run_id, seq: row.seq, started_seq: row.seq, method: row.method, dataset: row.dataset,
               batch_id: row.batch_id, status: 'running', item_ids: row.item_ids, n_items: size(row.item_ids),
               config: row.config_json, models: row.models_json, prompt_hashes: row.prompt_hashes_json,
               seeds: row.seeds_json, versions: row.versions_json, dataset_fingerprint: row.dataset_fingerprint,
               dataset_head_seq: row.dataset_head_seq})
RETURN collect(row.run_id) AS applied
