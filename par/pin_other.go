//go:build !linux

package par

import "errors"

func pinThread(cpu int) error { return errors.New("parloop: pinning is supported on Linux only") }

const defaultPinning = false
