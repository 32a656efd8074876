"""Build and solve the purchase integer program (the only stage that imports PuLP)."""
