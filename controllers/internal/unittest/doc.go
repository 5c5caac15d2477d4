// Package unittest holds what the unit tables of every package under controllers/ share: the fixed
// instants they are anchored on and the CronJob "hourly" they reconcile. Only tests import it.
package unittest
