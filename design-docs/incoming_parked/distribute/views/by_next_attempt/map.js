function (doc) {
  // Parked documents (src/storage/distribution-parked.ts) by when each is due to be tried again:
  // the retry sweep reads the range up to now, so its cost is the documents due, not all parked.
  // next_attempt is an ISO 8601 UTC timestamp of fixed width: string order is time order.
  if (typeof doc.next_attempt === 'string') emit(doc.next_attempt, null);
}
