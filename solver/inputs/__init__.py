"""Load and validate the two input files: the hardware catalog and the workload mix."""
