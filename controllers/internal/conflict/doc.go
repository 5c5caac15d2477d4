// Package conflict is how both reconcilers write a status: once per reconcile, as a full update of the
// status subresource, and a conflict (the cache was behind the server) is a requeue, not an error.
package conflict
