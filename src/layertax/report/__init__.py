"""Reports read results only; they never run anything."""
