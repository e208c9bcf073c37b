// $spans: [{key, doc_id, start_line, end_line}] -> the text lines of each range (lines are text split on '\n',
// numbered from 1, ranges inclusive; a range past the end is cut at the last line).
UNWIND $spans AS span
MATCH (d:Document {id: span.doc_id})
WITH span.key AS key, d.n_lines AS n_lines, split(d.text, '\n')[span.start_line - 1 .. span.end_line] AS lines
RETURN collect({key: key, n_lines: n_lines, lines: lines}) AS rows
