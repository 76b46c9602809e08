function (doc, req) {
  // Filtered replication for /distribute (CouchDB 3 "filter functions",
  // https://docs.couchdb.org/en/stable/ddocs/ddocs.html#filter-functions), and the node's own
  // filter at publish and inbound processing (src/domain/filters.ts runs this same function).
  // Passes resource_data documents only (src/domain/resource-document.ts, isDistributable): never
  // tombstones, documents marked deleted, or any document with a do_not_distribute key (spec
  // "Rules common to publish and inbound distribution", 1). Deletion documents (payload_placement
  // "none") do pass: the destination tombstones what they replace. So does a tombstone that keeps
  // the replacement it superseded (isRelay): the destination takes that document, to which a
  // destination's filter applies.
  if (!doc) return false;
  var kept = doc.superseded_replacement;
  if (doc.doc_type === 'tombstone' && Object.prototype.toString.call(kept) === '[object Object]') {
    doc = kept;
  } else {
    if (doc.doc_type !== 'resource_data') return false;
    if (Object.prototype.hasOwnProperty.call(doc, 'do_not_distribute')) return false;
    if (doc.node_deleted) return false;
  }
  // The destination's filter description arrives as query_params.filter_description, a JSON
  // string (express-pouchdb has already parsed it into an object). Not "filter": CouchDB merges
  // query_params into the _changes query, where "filter" is this function's own name.
  var raw = req && req.query ? req.query.filter_description : null;
  if (!raw) return true;
  var description = typeof raw === 'string' ? JSON.parse(raw) : raw;
  if (!description || description.active === false || description.custom_filter === true) return true;
  var rules = description.filter || [];
  if (!rules.length) return true;

  function scalarTexts(value) {
    // Booleans are matched in both spellings: Python's ("True", as the original node wrote
    // filter values) and JSON's ("true").
    if (value === true) return ['True', 'true'];
    if (value === false) return ['False', 'false'];
    if (value === null) return ['None', 'null'];
    return [String(value)];
  }

  function valueMatches(value, pattern) {
    var i;
    if (pattern === undefined || pattern === null || pattern === '') return true;
    if (Object.prototype.toString.call(value) === '[object Array]') {
      for (i = 0; i < value.length; i++) if (valueMatches(value[i], pattern)) return true;
      return false;
    }
    if (value !== null && typeof value === 'object') {
      for (var key in value) if (Object.prototype.hasOwnProperty.call(value, key) && valueMatches(value[key], pattern)) return true;
      return false;
    }
    var texts = scalarTexts(value);
    for (i = 0; i < texts.length; i++) if (pattern.test(texts[i])) return true;
    return false;
  }

  // A rule matches when a key whose name or dotted path matches filter_key (a whole-name regular
  // expression) holds a value in which filter_value (a regular expression) is found.
  function ruleMatches(node, path, keyPattern, valuePattern) {
    if (node === null || typeof node !== 'object' || Object.prototype.toString.call(node) === '[object Array]') return false;
    for (var key in node) {
      if (!Object.prototype.hasOwnProperty.call(node, key)) continue;
      // Node-private fields (src/domain/node-private-fields.ts): no filter may select by them.
      if (!path && (key === 'node_publisher_account' || key === 'node_xml_checked')) continue;
      var dotted = path ? path + '.' + key : key;
      if ((keyPattern.test(key) || keyPattern.test(dotted)) && valueMatches(node[key], valuePattern)) return true;
      if (ruleMatches(node[key], dotted, keyPattern, valuePattern)) return true;
    }
    return false;
  }

  // Every pattern is compiled before any rule is applied. A filter holding one that does not
  // compile passes no document, whether it includes or excludes: the spec's filter rules ("Rules
  // common to publish and inbound distribution", 2) store only documents that pass the active
  // filters, and a filter that cannot be evaluated is passed by none. Taking such a pattern for
  // one that matches nothing (as this function did) let an excluding filter pass every document,
  // rules the destination meant to apply unapplied. Sending nothing loses nothing: once the
  // pattern is corrected the filter_description query parameter differs, so the replication has
  // another id and starts again from the first change. The node never gets here with such a
  // pattern: publish and inbound refuse it (src/domain/filters.ts), the destination does not
  // serve it at /destination, and a source refuses a destination that does.
  var compiled = [];
  for (var c = 0; c < rules.length; c++) {
    var rule = rules[c];
    // A rule that is no object (the description is JSON a peer or an edit supplied) cannot be
    // applied either: it would read as the key "undefined", matching nothing.
    if (!rule || typeof rule !== 'object') return false;
    try {
      compiled.push({
        key: new RegExp('^(?:' + rule.filter_key + ')$'),
        value: rule.filter_value === undefined || rule.filter_value === null ? null : new RegExp(rule.filter_value)
      });
    } catch (e) {
      return false;
    }
  }
  var matched = false;
  for (var r = 0; r < compiled.length && !matched; r++) matched = ruleMatches(doc, '', compiled[r].key, compiled[r].value);
  // include_exclude true: only matching documents pass; false: matching documents are excluded.
  return description.include_exclude === false ? !matched : matched;
}
