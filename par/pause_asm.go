//go:build amd64 || arm64

package par

// spinPause executes the CPU's spin-wait hint n times (pause_$GOARCH.s).
//
//go:noescape
func spinPause(n uint32)
