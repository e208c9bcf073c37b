// $ids: requirement ids -> their knowledge spans K: document, line range and the text of those lines.
MATCH (r:Requirement)-[g:GROUNDED_IN]->(d:Document) WHERE r.id IN $ids
WITH r.id AS key,
       {doc_id: d.id, doc_title: d.title, start_line: g.start_line, end_line: g.end_line, n_lines: d.n_lines,
        lines: split(d.text, '\n')[g.start_line - 1 .. g.end_line]} AS rel
ORDER BY g.seq, d.id, g.start_line
RETURN collect({key: key, rel: rel}) AS rows
