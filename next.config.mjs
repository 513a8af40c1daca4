/** @type {import('next').NextConfig} */
const nextConfig = {
  // Native addons and worker-based loggers must be loaded by Node, not bundled.
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "pino", "gpt-tokenizer"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default nextConfig;
