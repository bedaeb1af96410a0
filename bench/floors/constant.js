// Floor: the runtime and the socket alone. A constant answer, no binding touched.
export default {
  fetch() {
    return new Response('{"status":"OK"}', { headers: { "Content-Type": "application/json" } });
  },
};
