// codeUnitKey (src/storage/view-keys.ts): each UTF-16 unit as digits and lower-case letters,
// in code-unit order, so a key matches exactly and orders the same under CouchDB's ICU
// collation and the embedded store's.
function key(text) {
  var out = '', unit, i, symbols = '0123456789abcdefghijklmnopqrstuvwxyz';
  for (i = 0; i < text.length; i++) {
    unit = text.charCodeAt(i);
    if (unit >= 48 && unit <= 57) out += symbols.charAt(unit - 47);
    else if (unit >= 97 && unit <= 119) out += symbols.charAt(unit - 85);
    else if (unit < 48) out += '0' + ('0' + unit.toString(16)).slice(-2);
    else if (unit < 97) out += 'b' + unit.toString(16);
    else out += 'z' + ('000' + unit.toString(16)).slice(-4);
  }
  return out;
}
