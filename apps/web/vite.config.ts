import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/** `npx vite` in apps/web serves the app with hot reload and sends the API's routes to `npm start`. */
const API = "http://localhost:3000";

export default defineConfig({
  plugins: [react()],
  build: { outDir: "dist", emptyOutDir: true, target: "es2022", reportCompressedSize: true },
  server: { proxy: { "/account": API, "/v1": API, "/doc": API, "/admin": API } },
});
