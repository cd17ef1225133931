"""Training from a fixed set of preferences rather than from the policy's own rollouts (DPO)."""
