/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native addons and worker-based loggers must be loaded by Node, not bundled.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pino", "gpt-tokenizer"],
  poweredByHeader: false,
  // `npm test` type-checks the whole project with tsc; `npm start` should not repeat it.
  typescript: { ignoreBuildErrors: true },
  reactStrictMode: true,
};

export default nextConfig;
