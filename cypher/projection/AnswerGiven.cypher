// $rows: {seq, attempt_id, answer, rounds, turns, finish, tokens_in, tokens_out, model, prompt_sha256, flags,
//         exchange (the final reply's LLM exchange; absent in old logs)}
UNWIND $rows AS row
MATCH (a:Attempt {id: row.attempt_id})
SET a.answer = row.answer, a.rounds = row.rounds, a.turns = row.turns, a.finish = row.finish,
    a.tokens_in = row.tokens_in, a.tokens_out = row.tokens_out, a.answer_model = row.model,
    a.answer_prompt_sha256 = row.prompt_sha256, a.answer_seq = row.seq,
    a.flags = coalesce(row.flags, []), a.answer_exchange = row.exchange
RETURN collect(row.attempt_id) AS applied
