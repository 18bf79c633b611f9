"""The arena: third-party bots in sandboxed processes behind a time-limited pick protocol."""
