// The RAW suite.
