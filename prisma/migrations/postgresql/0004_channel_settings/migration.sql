-- A channel type's own settings (API version, region...); secret ones sealed as {"sealed": "..."}.
ALTER TABLE "Channel" ADD COLUMN "settings" JSONB NOT NULL DEFAULT '{}';
