// A query whose heap grows with $n: every integer up to $n sorted before the first row leaves.
UNWIND range(1, $n) AS x
WITH x ORDER BY x DESC
RETURN count(x) AS n
