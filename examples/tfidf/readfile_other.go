//go:build !unix

package main

import "os"

// rawFile is an os.File where plain system calls are not used.
type rawFile = *os.File

// openRaw opens path for reading.
func openRaw(path string) (rawFile, error) { return os.Open(path) }
