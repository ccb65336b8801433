//go:build !amd64 && !arm64

package par

var pauseSink uint32

// spinPause busy-waits for about n short steps.
func spinPause(n uint32) {
	for i := uint32(0); i < n; i++ {
		pauseSink += i
	}
}
