const dev = process.env.NODE_ENV === "development";

// Console pages may not be framed, sniffed or leak their URL; scripts and connections stay
// on this origin. Next's inline bootstrap scripts need 'unsafe-inline' (no nonces here);
// generated images and speech come back as remote or data URLs.
const contentSecurityPolicy = [
  "default-src 'self'",
  `script-src 'self' 'unsafe-inline'${dev ? " 'unsafe-eval'" : ""}`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob: https:",
  "media-src 'self' data: blob:",
  `connect-src 'self'${dev ? " ws:" : ""}`,
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'none'",
].join("; ");

/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native addons and worker-based loggers must be loaded by Node, not bundled.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pino", "gpt-tokenizer", "google-auth-library"],
  poweredByHeader: false,
  // `npm test` type-checks the whole project with tsc; `npm start` should not repeat it.
  typescript: { ignoreBuildErrors: true },
  reactStrictMode: true,
  // The API is served by server.ts's own path: loading every route bundle at start would
  // cost ~120 MB for pages most processes never render. Pages load on first visit.
  experimental: { preloadEntriesOnStart: false },
  async headers() {
    return [
      {
        source: "/:path*",
        headers: [
          { key: "Content-Security-Policy", value: contentSecurityPolicy },
          { key: "X-Frame-Options", value: "DENY" },
          { key: "X-Content-Type-Options", value: "nosniff" },
          { key: "Referrer-Policy", value: "same-origin" },
          { key: "Permissions-Policy", value: "camera=(), geolocation=(), microphone=(self)" },
        ],
      },
    ];
  },
};

export default nextConfig;
