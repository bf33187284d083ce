// Where the public documents answer, for every layer that names them: the REST layer serves the
// OpenAPI document there; the HTTP layer's start page, REST reference and banner link to it.
export const OPENAPI_PATH = "/openapi.json";
