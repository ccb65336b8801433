//go:build !linux

package platform

import "errors"

// PinThread is supported on Linux only.
func PinThread(cpu int) error { return errors.New("platform: pinning is supported on Linux only") }
