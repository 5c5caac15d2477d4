package rig

import (
	"os"
	"testing"
)

func TestProcFigures(t *testing.T) {
	rss, err := procPeakRSS(os.Getpid())
	if err != nil || rss < 1<<20 {
		t.Errorf("procPeakRSS(self) = %d, %v; want at least 1 MiB", rss, err)
	}
	if _, err := procCPUSeconds(os.Getpid()); err != nil {
		t.Errorf("procCPUSeconds(self): %v", err)
	}
}
