"""Tournaments: fair schedules, resumable parallel runs, TrueSkill ratings and ranking tables."""
