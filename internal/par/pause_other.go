//go:build !amd64 && !arm64

package par

func pause() {}
