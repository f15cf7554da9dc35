// The SPARQL page's editor: syntax colours under the textarea, examples, Ctrl+Enter.
// Plain JavaScript served by paperkg itself (no CDN); the page works without it.
"use strict";
(function () {
  const area = document.getElementById("sparql-query");
  const code = document.getElementById("sparql-highlight");
  const form = document.getElementById("sparql-form");
  const picker = document.getElementById("sparql-examples");
  const texts = document.getElementById("sparql-example-texts");
  if (!area || !code || !form) return;
  const KEYWORDS = new Set(("BASE PREFIX SELECT CONSTRUCT DESCRIBE ASK DISTINCT REDUCED AS " +
    "FROM NAMED WHERE ORDER BY GROUP HAVING ASC DESC LIMIT OFFSET VALUES OPTIONAL UNION " +
    "MINUS GRAPH SERVICE SILENT BIND FILTER EXISTS NOT IN UNDEF A TRUE FALSE SEPARATOR " +
    "COUNT SUM MIN MAX AVG SAMPLE GROUP_CONCAT STR LANG LANGMATCHES DATATYPE BOUND IRI URI " +
    "BNODE REGEX CONTAINS STRSTARTS STRENDS LCASE UCASE CONCAT IF COALESCE ISIRI ISBLANK " +
    "ISLITERAL ISNUMERIC SUBSTR REPLACE STRLEN YEAR NOW").split(" "));
  // one token at a time: the first alternative that matches at the position wins
  const TOKEN = new RegExp([
    "(#[^\\n]*)",                                    // 1 comment
    "(\"\"\"[\\s\\S]*?\"\"\"|'''[\\s\\S]*?'''|\"(?:[^\"\\\\\\n]|\\\\.)*\"|'(?:[^'\\\\\\n]|\\\\.)*')", // 2 string
    "(<[^<>\"{}|^`\\\\\\s]*>)",                     // 3 IRI
    "([?$][A-Za-z0-9_]+)",                           // 4 variable
    "([A-Za-z][\\w.-]*:[\\w.%-]*|:[\\w.%-]+)",       // 5 prefixed name
    "([A-Za-z_]+)",                                  // 6 word
    "([0-9]+(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)",   // 7 number
  ].join("|"), "g");
  const CLASSES = [null, "c", "s", "i", "v", "p", "k", "n"];

  function escape(text) {
    return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function highlight() {
    const text = area.value;
    let out = "";
    let last = 0;
    TOKEN.lastIndex = 0;
    for (let m = TOKEN.exec(text); m !== null; m = TOKEN.exec(text)) {
      if (m[0] === "") { TOKEN.lastIndex++; continue; }
      let group = 1;
      while (m[group] === undefined) group++;
      let cls = CLASSES[group];
      if (group === 6 && !KEYWORDS.has(m[0].toUpperCase())) cls = null;
      out += escape(text.slice(last, m.index));
      out += cls ? `<span class="t-${cls}">${escape(m[0])}</span>` : escape(m[0]);
      last = m.index + m[0].length;
    }
    code.innerHTML = out + escape(text.slice(last)) + "\n";
    sync();
  }

  function sync() {
    code.parentElement.scrollTop = area.scrollTop;
    code.parentElement.scrollLeft = area.scrollLeft;
  }

  area.addEventListener("input", highlight);
  area.addEventListener("scroll", sync);
  area.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      form.requestSubmit();
    } else if (event.key === "Tab") {
      event.preventDefault();
      area.setRangeText("  ", area.selectionStart, area.selectionEnd, "end");
      highlight();
    }
  });
  if (picker && texts) {
    const examples = texts.content.querySelectorAll("pre");
    picker.addEventListener("change", () => {
      const chosen = examples[Number(picker.value)];
      if (picker.value !== "" && chosen) {
        area.value = chosen.textContent;
        highlight();
        area.focus();
      }
    });
  }
  document.body.classList.add("with-editor");
  highlight();
})();
