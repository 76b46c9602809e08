function (newDoc, oldDoc, userCtx) {
  // Node documents are written by the node (a server admin) only; CouchDB 3 validate_doc_update,
  // https://docs.couchdb.org/en/stable/ddocs/ddocs.html#validate-document-update-functions
  if (!userCtx || !userCtx.roles || userCtx.roles.indexOf('_admin') === -1) {
    throw ({ forbidden: 'Only the node (a server admin) may change node documents.' });
  }
}
