// Starts Swagger UI on the OpenAPI document named by the page (no inline script needed).
window.addEventListener("load", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({ url: root.dataset.specUrl, dom_id: "#swagger-ui", deepLinking: true });
});
