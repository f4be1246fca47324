# One image for every role; ROLE chooses what a container runs (api, worker or all). The same image runs
# the chat bots: `node apps/discord-bot/dist/main.js` or `node apps/slack-bot/dist/main.js`.
FROM node:24-bookworm-slim AS build
WORKDIR /app
# The npm of package.json's packageManager: it honours allowScripts, which keeps prisma's install scripts off.
RUN npm install --global --no-audit --no-fund npm@11.19.1
COPY package.json package-lock.json turbo.json tsconfig.base.json ./
COPY packages ./packages
COPY apps ./apps
# The README's install, not npm ci: npm ci refuses a lock file that lacks optional packages of other
# platforms, and a lock made against a registry that lacks some (lancedb's macOS build) lacks them.
RUN npm install --no-audit --no-fund && npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
CMD ["node", "apps/api/dist/main.js"]
