// The page scripts' translations: /i18n/<lang>.js (loaded first) sets window.thoughtwaveCatalog; the scripts
// call _("message %(name)s", {name: value}) and ngettext("one %(num)s", "%(num)s more", n). Babel extracts
// both names from the scripts into the shared catalogs.
(function () {
  "use strict";
  const catalog = window.thoughtwaveCatalog || { lang: document.documentElement.lang || "en", messages: {} };

  function fill(text, values) {
    if (!values) return text;
    return text.replace(/%\((\w+)\)[sd]/g, (whole, name) => (name in values ? String(values[name]) : whole));
  }

  // Which plural form: French counts 0 and 1 as singular, English and German only 1.
  function form(n) { return catalog.lang === "fr" ? (n > 1 ? 1 : 0) : (n !== 1 ? 1 : 0); }

  window.thoughtwaveI18n = {
    lang: catalog.lang,
    gettext(message, values) {
      const found = catalog.messages[message];
      return fill(typeof found === "string" && found ? found : message, values);
    },
    ngettext(singular, plural, n, values) {
      const found = catalog.messages[singular];
      const forms = Array.isArray(found) && found[0] ? found : [singular, plural];
      return fill(forms[form(n)], Object.assign({ num: n }, values || {}));
    },
  };
})();
