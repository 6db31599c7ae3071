/* absa-aggregator report: the sample table's filter by error class (docs/errors.md).
   report.js calls absaErrorFilter(samples, controls, onChange) once: it adds a select to the controls and
   returns whether sample i has an error of the chosen class at the final stage under a unit (null when the
   data carry no error classes). units[unit].errors[i] holds one letter per class the sample has. */
(function () {
  "use strict";

  window.absaErrorFilter = function (s, controls, onChange) {
    if (!s.error_classes) return null;
    var label = document.createElement("label");
    label.textContent = "Error ";
    var select = document.createElement("select");
    select.id = "sample-error";
    select.title = "samples with an error of this class at the final stage, under the selected unit";
    [["", "any or none"]].concat(s.error_classes).forEach(function (o) {
      var option = document.createElement("option");
      option.value = o[0];
      option.textContent = o[1];
      select.appendChild(option);
    });
    label.appendChild(select);
    controls.appendChild(label);
    select.addEventListener("change", onChange);
    return function (unit, i) {
      var codes = s.units[unit].errors;
      return !select.value || (codes !== undefined && codes[i].indexOf(select.value) >= 0);
    };
  };
})();
