package edgelist

// ReadBytes is readBytes, for the tests.
var ReadBytes = readBytes
