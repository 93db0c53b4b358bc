// Binds the export page's "select all" toggle (templates/admin/import_export/export.html) to
// django-import-export's handler, in place of an inline onchange attribute the CSP blocks.
document.addEventListener("DOMContentLoaded", () => {
  const toggle = document.getElementById("select-all-toggle");
  if (toggle && typeof onSelectToggleChange === "function") {
    toggle.addEventListener("change", onSelectToggleChange);
  }
});
