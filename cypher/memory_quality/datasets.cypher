// Dataset names of profiles (from their ProfileCreated events), with profile counts.
MATCH (p:Profile)
RETURN p.dataset AS dataset, count(*) AS n_profiles
ORDER BY dataset
