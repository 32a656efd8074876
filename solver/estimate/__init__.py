"""Pure estimators: what one replica of a workload needs on one GPU SKU and degree."""
