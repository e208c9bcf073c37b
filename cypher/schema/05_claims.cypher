// Run workers' claims on attempts (agents/runs/claims.py): one node per attempt.
CREATE CONSTRAINT attempt_claim_id_unique IF NOT EXISTS FOR (n:AttemptClaim) REQUIRE n.id IS UNIQUE;
