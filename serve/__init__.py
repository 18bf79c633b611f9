"""arena serve: a competition server on a league (submissions, validation, live leaderboard)."""
