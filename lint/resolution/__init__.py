"""Model resolution: which architecture a deployment's model reference stands for, and how
that was decided (user facts, a config.json, the lock file, the catalog, the name)."""
