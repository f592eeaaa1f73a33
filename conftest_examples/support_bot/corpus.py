"""The help-centre articles of a fictional cloud storage product, Nimbus Drive."""

from __future__ import annotations

ARTICLES: dict[str, str] = {
    "refunds": (
        "Refunds are issued to the original payment method. A refund is processed within 5 business "
        "days after we approve the request. Annual plans can be refunded in full during the first 30 "
        "days; after that, refunds are prorated by the unused months."
    ),
    "plans": (
        "Nimbus Drive has three plans. The Free plan includes 15 GB of storage. The Plus plan costs "
        "$4 per month and includes 200 GB. The Pro plan costs $12 per month and includes 2 TB of storage "
        "and priority support."
    ),
    "sharing": (
        "Files and folders can be shared with a link or with named people. Shared links can be protected "
        "with a password on the Plus and Pro plans. Link expiry dates are available on the Pro plan only."
    ),
    "security": (
        "All files are encrypted at rest with AES-256 and in transit with TLS 1.3. Two-factor "
        "authentication can be enabled in the account settings under Security. Nimbus Drive never "
        "sells customer data."
    ),
    "versions": (
        "Nimbus Drive keeps previous versions of every file. Free accounts keep versions for 30 days, "
        "and Plus and Pro accounts keep them for 180 days. A previous version can be restored from the "
        "file's version history."
    ),
    "deleted-files": (
        "Deleted files move to the trash, where they stay for 30 days before they are removed for good. "
        "Files in the trash do not count towards the storage quota."
    ),
    "offline": (
        "The desktop app syncs files to your computer so they can be opened without an internet "
        "connection. On phones, files must be marked as available offline one by one."
    ),
    "support": (
        "Support is available by email around the clock. Pro customers also get live chat between 8:00 "
        "and 20:00 Central European Time on working days. Most email requests are answered within 24 hours."
    ),
    "cancel": (
        "A subscription can be cancelled at any time from the Billing page. After cancelling, the plan "
        "stays active until the end of the paid period, and the account then moves to the Free plan."
    ),
    "storage-full": (
        "When the storage quota is full, new files stop syncing, but existing files stay available. "
        "Deleting files, emptying the trash or upgrading the plan frees space."
    ),
}
