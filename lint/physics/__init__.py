"""Capacity physics: derive each role's KV pool from the model, the
accelerators and the engine settings (issue #3). Pure functions only."""
from __future__ import annotations
