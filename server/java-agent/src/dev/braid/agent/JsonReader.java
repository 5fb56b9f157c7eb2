package dev.braid.agent;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON parser for the agent's input files (noise plans), so the agent needs no library:
 * objects become {@code Map<String, Object>}, arrays {@code List<Object>}, numbers {@code Double},
 * plus {@code String}, {@code Boolean} and null. Errors name the line and column.
 */
final class JsonReader {
  private final String text;
  private int pos;

  private JsonReader(String text) {
    this.text = text;
  }

  static Object parse(String text) {
    JsonReader r = new JsonReader(text);
    r.space();
    Object v = r.value();
    r.space();
    if (r.pos < text.length()) throw r.error("unexpected text after the JSON value");
    return v;
  }

  private IllegalArgumentException error(String what) {
    int line = 1;
    int col = 1;
    for (int k = 0; k < pos && k < text.length(); k++) {
      if (text.charAt(k) == '\n') {
        line++;
        col = 1;
      } else {
        col++;
      }
    }
    return new IllegalArgumentException("line " + line + ", column " + col + ": " + what);
  }

  private void space() {
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      pos++;
    }
  }

  private char peek() {
    if (pos >= text.length()) throw error("unexpected end of the file");
    return text.charAt(pos);
  }

  private void expect(char c) {
    if (peek() != c) throw error("expected '" + c + "'");
    pos++;
  }

  private Object value() {
    char c = peek();
    switch (c) {
      case '{': return object();
      case '[': return array();
      case '"': return string();
      case 't': return word("true", Boolean.TRUE);
      case 'f': return word("false", Boolean.FALSE);
      case 'n': return word("null", null);
      default:
        if (c == '-' || (c >= '0' && c <= '9')) return number();
        throw error("unexpected character '" + c + "'");
    }
  }

  private Object word(String w, Object v) {
    if (!text.startsWith(w, pos)) throw error("expected " + w);
    pos += w.length();
    return v;
  }

  private Map<String, Object> object() {
    expect('{');
    Map<String, Object> m = new LinkedHashMap<>();
    space();
    if (peek() == '}') {
      pos++;
      return m;
    }
    while (true) {
      space();
      if (peek() != '"') throw error("expected a quoted key");
      String key = string();
      space();
      expect(':');
      space();
      m.put(key, value());
      space();
      if (peek() == ',') {
        pos++;
        continue;
      }
      expect('}');
      return m;
    }
  }

  private List<Object> array() {
    expect('[');
    List<Object> list = new ArrayList<>();
    space();
    if (peek() == ']') {
      pos++;
      return list;
    }
    while (true) {
      space();
      list.add(value());
      space();
      if (peek() == ',') {
        pos++;
        continue;
      }
      expect(']');
      return list;
    }
  }

  private String string() {
    expect('"');
    StringBuilder b = new StringBuilder();
    while (true) {
      char c = peek();
      pos++;
      if (c == '"') return b.toString();
      if (c < 0x20) throw error("control character in a string");
      if (c != '\\') {
        b.append(c);
        continue;
      }
      char e = peek();
      pos++;
      switch (e) {
        case '"': b.append('"'); break;
        case '\\': b.append('\\'); break;
        case '/': b.append('/'); break;
        case 'b': b.append('\b'); break;
        case 'f': b.append('\f'); break;
        case 'n': b.append('\n'); break;
        case 'r': b.append('\r'); break;
        case 't': b.append('\t'); break;
        case 'u':
          if (pos + 4 > text.length()) throw error("short \\u escape");
          try {
            b.append((char) Integer.parseInt(text.substring(pos, pos + 4), 16));
          } catch (NumberFormatException x) {
            throw error("bad \\u escape");
          }
          pos += 4;
          break;
        default: throw error("bad escape \\" + e);
      }
    }
  }

  private Double number() {
    int start = pos;
    while (pos < text.length() && "+-0123456789.eE".indexOf(text.charAt(pos)) >= 0) pos++;
    try {
      return Double.valueOf(text.substring(start, pos));
    } catch (NumberFormatException x) {
      pos = start;
      throw error("bad number");
    }
  }
}
