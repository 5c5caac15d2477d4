// Package faults holds the places in the controller where the e2e image can make the manager exit, so that
// an e2e spec crashes it at an exact moment instead of hoping a pod kill lands there. Only a build with the
// tag e2e_faults arms them (faults_e2e.go); in every other build At does nothing.
package faults
