"""The result document: its schema ("layertax/1") and its validation where it enters."""
