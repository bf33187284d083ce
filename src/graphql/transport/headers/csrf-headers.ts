// Headers that make a browser ask the server first (a CORS preflight) before it sends a request
// cross-site: Apollo's two, and Authorization, which no CORS-safelisted request may carry. A
// request with one of them is no forgery; Apollo's CSRF prevention refuses GET and multipart
// requests without any (a form or an <img> on another site cannot add them).
export const PREFLIGHTED_HEADERS = ["x-apollo-operation-name", "apollo-require-preflight", "authorization"];
