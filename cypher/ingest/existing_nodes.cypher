// Which of the ids an input is about to create already exist in the projection (per label).
UNWIND $Document AS id MATCH (:Document {id: id}) RETURN 'Document' AS label, id
UNION ALL
UNWIND $Profile AS id MATCH (:Profile {id: id}) RETURN 'Profile' AS label, id
UNION ALL
UNWIND $Fact AS id MATCH (:Fact {id: id}) RETURN 'Fact' AS label, id
UNION ALL
UNWIND $Topic AS id MATCH (:Topic {id: id}) RETURN 'Topic' AS label, id
UNION ALL
UNWIND $Session AS id MATCH (:Session {id: id}) RETURN 'Session' AS label, id
UNION ALL
UNWIND $Turn AS id MATCH (:Turn {id: id}) RETURN 'Turn' AS label, id
UNION ALL
UNWIND $Item AS id MATCH (:Item {id: id}) RETURN 'Item' AS label, id
UNION ALL
UNWIND $Requirement AS id MATCH (:Requirement {id: id}) RETURN 'Requirement' AS label, id
